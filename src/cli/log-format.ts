/**
 * `--log-format text|json` (anywhere on the command line) or SVC_LOG_FORMAT: read once, here, by
 * the entry (which takes the flag off the line and picks the logger) and by the commands that log
 * more in JSON (the run's end as an event).
 */
export const logFormatOf = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv
): { readonly format: string; readonly rest: ReadonlyArray<string> } => {
  const at = argv.indexOf("--log-format")
  if (at < 0) return { format: env.SVC_LOG_FORMAT ?? "text", rest: argv }
  return { format: argv[at + 1] ?? "", rest: [...argv.slice(0, at), ...argv.slice(at + 2)] }
}

export const logFormat = logFormatOf(process.argv, process.env)
