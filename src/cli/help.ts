/**
 * `--help` as a reader wants it: a usage line with the program's name, the description, then one
 * line per argument and option with its own description and default, wrapped to 100 columns.
 * Rendered from @effect/cli's help document (the one definition of each option), leaving out
 * what it generates for every option alike ("A file.", "This setting is optional.", the choices
 * repeated in words) and its table of subcommands padded to the longest usage line.
 */
import { CliConfig, CommandDescriptor } from "@effect/cli"
import type { HelpDoc } from "@effect/cli/HelpDoc"
import { HashSet } from "effect"
import type { Span } from "@effect/cli/HelpDoc/Span"

/** A command as far as its help goes: its descriptor (names, arguments, options, description). */
type AnyCommand = { readonly descriptor: CommandDescriptor.Command<unknown> }

const helpOf = (command: AnyCommand) => CommandDescriptor.getHelp(command.descriptor, CliConfig.defaultConfig)

const width = 100
const termWidth = 30

/** The paragraphs @effect/cli writes for every option of a type; ours say what the option does. */
const generated = [
  /^A file\.$/,
  /^A directory\.$/,
  /^A true or false value\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^A user-defined piece of text\.$/,
  /^One of the following: /,
  /^This setting is optional\.$/,
  /^This option can be repeated/
]

const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "URI":
      return span.value
    case "Text":
      return span.value
    default:
      return spanText(span.value)
  }
}

type Block =
  | { readonly _tag: "Header"; readonly text: string }
  | { readonly _tag: "Paragraph"; readonly text: string }
  | { readonly _tag: "Terms"; readonly items: ReadonlyArray<{ readonly term: string; readonly doc: HelpDoc }> }

const blocks = (doc: HelpDoc): Array<Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return [{ _tag: "Header", text: spanText(doc.value) }]
    case "Paragraph":
      return [{ _tag: "Paragraph", text: spanText(doc.value) }]
    case "DescriptionList":
      return [{ _tag: "Terms", items: doc.definitions.map(([term, d]) => ({ term: spanText(term), doc: d })) }]
    case "Enumeration":
      return doc.elements.flatMap(blocks)
    case "Sequence":
      return [...blocks(doc.left), ...blocks(doc.right)]
  }
}

const paragraphs = (doc: HelpDoc): Array<string> => blocks(doc).flatMap((b) => (b._tag === "Paragraph" ? [b.text] : []))

/** What an argument or option does, without the generated paragraphs; and whether it may be left out. */
const described = (doc: HelpDoc) => {
  const texts = paragraphs(doc)
  return {
    text: texts.filter((t) => !generated.some((re) => re.test(t))).join(" "),
    optional: texts.includes("This setting is optional.")
  }
}

/** `--input file` → `--input <file>`; `(-k, --top-k integer)` → `-k, --top-k <integer>`; choices joined by `|`. */
const optionTerm = (term: string) => {
  const bare = term.replace(/^\((.*)\)$/, "$1")
  const match = /^((?:-{1,2}[\w-]+(?:, )?)+)(?: (.*))?$/.exec(bare)
  if (!match) return bare
  const names = match[1]!.replace(/, $/, "")
  const type = match[2]
  if (!type) return names
  return type.includes(" | ") ? `${names} ${type.split(" | ").join("|")}` : `${names} <${type}>`
}

const wrap = (text: string, indent: number, first: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  let room = width - first
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line.length > 0 && line.length + 1 + word.length > room) {
      lines.push(line)
      line = word
      room = width - indent
    } else line = line.length > 0 ? `${line} ${word}` : word
  }
  if (line.length > 0) lines.push(line)
  return lines
}

/** A term and its description: on one line when the term fits its column, else the description below. */
const termLines = (term: string, text: string): Array<string> => {
  const head = `  ${term}`
  if (text.length === 0) return [head]
  const pad = " ".repeat(termWidth)
  if (head.length + 2 <= termWidth) {
    const [first, ...rest] = wrap(text, termWidth, termWidth)
    return [head.padEnd(termWidth) + first, ...rest.map((l) => pad + l)]
  }
  return [head, ...wrap(text, termWidth, termWidth).map((l) => pad + l)]
}

/** Options @effect/cli adds to every command; listed once, in the program's help. */
const builtIn = new Set(["--completions", "--log-level", "-h, --help", "--wizard", "--version"])

const globalOptions = [
  ["--log-level <level>", "minimum level of log lines: all, trace, debug, info, warning, error, fatal, none"],
  ["--log-format text|json", "log lines as text (default) or one JSON object each (or SVC_LOG_FORMAT=json)"],
  ["--help", "this help; `svc-batch <command> --help` for a command's (-h for short)"],
  ["--version", "the version"]
] as const

/** Splits "What it does. Example: svc-batch …" into the description and its example. */
const splitExample = (text: string) => {
  const at = text.indexOf(" Example: ")
  return at < 0 ? { what: text, example: undefined } : { what: text.slice(0, at), example: text.slice(at + 10) }
}

/** The help of one subcommand of `program`. */
export const commandHelp = (program: string, command: AnyCommand) => {
  const parts = blocks(helpOf(command))
  let section = ""
  let description = ""
  const args: Array<{ term: string; text: string; optional: boolean }> = []
  const options: Array<{ term: string; text: string }> = []
  for (const block of parts) {
    if (block._tag === "Header") section = block.text
    else if (block._tag === "Paragraph" && section === "DESCRIPTION") description += block.text
    else if (block._tag === "Terms") {
      for (const item of block.items) {
        const { text, optional } = described(item.doc)
        if (section === "ARGUMENTS") args.push({ term: item.term, text, optional })
        else if (section === "OPTIONS") {
          const term = optionTerm(item.term)
          if (!builtIn.has(term.split(" ")[0]!) && !builtIn.has(term)) options.push({ term, text })
        }
      }
    }
  }
  const usageArgs = args.map((a) => (a.optional ? `[${a.term}]` : a.term))
  const usage = [program, commandName(command), options.length > 0 ? "[options]" : ""]
    .concat(usageArgs)
    .filter((s) => s.length > 0)
    .join(" ")
  const { what, example } = splitExample(description)
  const lines = [`Usage: ${usage}`, "", ...wrap(what, 0, 0)]
  if (example) lines.push("", `Example: ${example}`)
  if (args.length > 0) lines.push("", "Arguments:", ...args.flatMap((a) => termLines(a.term, a.text)))
  if (options.length > 0) lines.push("", "Options:", ...options.flatMap((o) => termLines(o.term, o.text)))
  lines.push("", `Global options: --log-level, --log-format, --help, --version (see ${program} --help)`)
  return lines.join("\n") + "\n"
}

export const commandName = (command: AnyCommand) =>
  [...HashSet.values(CommandDescriptor.getNames(command.descriptor))][0] ?? ""

/** The program's help: what it does, its commands (one line each), the global options. */
export const programHelp = (
  program: string,
  version: string,
  description: string,
  commands: ReadonlyArray<AnyCommand>
) => {
  const lines = [`${program} ${version}`, "", ...wrap(description, 0, 0), "", `Usage: ${program} <command> [options]`]
  lines.push("", "Commands:")
  for (const command of commands) {
    const doc = blocks(helpOf(command))
    const text = doc.find((b, i) => b._tag === "Paragraph" && doc[i - 1]?._tag === "Header")
    const what = text?._tag === "Paragraph" ? splitExample(text.text).what : ""
    lines.push(...termLines(commandName(command), what))
  }
  lines.push("", "Global options:", ...globalOptions.flatMap(([t, d]) => termLines(t, d)))
  lines.push("", `Run \`${program} <command> --help\` for a command's arguments and options.`)
  return lines.join("\n") + "\n"
}

/**
 * Whether the command line asks for help, and whose: no arguments, or `-h`/`--help` anywhere —
 * the command's when the first argument names one, else the program's.
 */
export const helpRequest = <C extends AnyCommand>(
  args: ReadonlyArray<string>,
  commands: ReadonlyArray<C>
): C | "program" | undefined => {
  if (args.length > 0 && !args.some((a) => a === "--help" || a === "-h")) return undefined
  return commands.find((c) => commandName(c) === args[0]) ?? "program"
}
