/**
 * The `<job-file>` argument of every command that reads a job. A relative path is taken from the
 * current directory (under `npm run svc-batch`, the directory npm was started in: see bin.mjs), and
 * a missing file says where it was looked for — `no job file nightly.yaml in /home/u/x` — rather
 * than @effect/cli's `Path 'nightly.yaml' must exist`, which leaves the directory to guess.
 */
import { Args, HelpDoc } from "@effect/cli"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { basename, dirname, resolve } from "node:path"

/** The message for a job file that does not exist. */
export const noJobFile = (path: string): string => {
  const full = resolve(path)
  return `no job file ${basename(full)} in ${dirname(full)}`
}

// Args.file itself still refuses a directory ("Expected path '…' to be a file").
export const jobFileArg = Args.file({ name: "job-file" }).pipe(
  Args.mapEffect((path) => (existsSync(path) ? Effect.succeed(path) : Effect.fail(HelpDoc.p(noJobFile(path)))))
)
