// Stands in for the TOML and INI parsers @effect/cli imports for config-file options
// (Options.fileParse), which svc-batch does not offer: ~150 KB less to compile at every start.
export const parse = () => {
  throw new Error("TOML and INI files are not read by svc-batch")
}
