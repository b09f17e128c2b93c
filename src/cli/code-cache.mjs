/**
 * Runs the CommonJS bundle (dist/cli/main.cjs) with a V8 code cache kept beside it, one per
 * command: the functions the last such command compiled are taken from the cache instead of being
 * parsed and compiled again (a 20-record `run`: ~0.2 s less CPU of ~0.65; `status` ~0.1 of 0.3).
 * Node 20 has no compile cache of its own (module.enableCompileCache is Node ≥ 22.1) and none for
 * ES modules, hence one bundle in CommonJS, compiled through vm.Script.
 *
 * The cache is written when the command exits with 0 and found none it could use (a command that
 * fails early compiles little; the next one writes it), or found one written for another job (its
 * `owner`, e.g. the job file): that one is used, and written again with what this job compiled too
 * (V8 keeps the cached functions), so a nightly job's cache holds its own paths (a 20-record
 * moderation run on an embedding job's cache: 0.63 s CPU; on its own: 0.45 s). V8 checks a cache's version and flags
 * (it rejects one made with other heap flags) but takes the source's length for its hash, so the
 * file's name carries the bundle's size and mtime, Node's version and its flags: a rebuild or
 * other flags get a cache of their own, never one made for other code. A directory that cannot be
 * written (an installed package owned by another user) leaves the command uncached, not failed.
 */
import Module, { createRequire } from "node:module"
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import vm from "node:vm"

/** FNV-1a, 32 bits, in hex: names the cache by what V8 checks it against. */
const hash = (text) => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, "0")
}

/** The cache file of `file` for the command `key`. */
export const cachePath = (file, key) => {
  const { size, mtimeMs } = statSync(file)
  const identity = [size, mtimeMs, process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ""]
  return join(dirname(file), "cache", `${key.replace(/[^a-z0-9-]/gi, "_")}-${hash(identity.join("\0"))}.v8`)
}

/** The cache file's first bytes: whom it was written for (`owner`'s hash), then V8's data. */
const OWNER_BYTES = 8

/**
 * Runs `file` (CommonJS) as Node would require it, with the code cache of `key`, written for
 * `owner` (what the command works on: its job file); gives whether a cache was used.
 */
export const runBundle = (file, key, owner = "") => {
  const path = cachePath(file, key)
  const ownerTag = hash(owner)
  let stored
  try {
    stored = readFileSync(path)
  } catch {
    stored = undefined
  }
  const cachedData = stored !== undefined && stored.length > OWNER_BYTES ? stored.subarray(OWNER_BYTES) : undefined
  const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData })
  const cached = cachedData !== undefined && !script.cachedDataRejected
  if (!cached || stored.subarray(0, OWNER_BYTES).toString("latin1") !== ownerTag) {
    process.once("exit", (code) => {
      if (code !== 0) return
      // Written aside and renamed: a command started meanwhile reads the old cache or the new, whole.
      const temp = `${path}.tmp-${process.pid}`
      try {
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(temp, Buffer.concat([Buffer.from(ownerTag, "latin1"), script.createCachedData()]))
        renameSync(temp, path)
      } catch {
        try {
          unlinkSync(temp)
        } catch {
          // Never written.
        }
      }
    })
  }
  const module = { exports: {}, filename: file, id: ".", loaded: false, children: [], paths: [] }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
  return { cached }
}
