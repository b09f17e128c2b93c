/**
 * Presets: the named pipelines of `pipelines/` that users start from. A preset names its inputs
 * (every one must be mapped by the job's `fields`) and builds its stages from that mapping.
 */
import type { Stage } from "./stage.ts"

export type FieldMapping = Readonly<Record<string, string | ReadonlyArray<string>>>

export interface Preset {
  readonly name: string
  readonly description: string
  /** The preset's named inputs and what each is for; every one must be mapped by the job. */
  readonly inputs: Readonly<Record<string, string>>
  readonly build: (fields: Readonly<Record<string, ReadonlyArray<string>>>) => ReadonlyArray<Stage>
}

export const definePreset = (preset: Preset): Preset => preset

/** The preset's stages with the job's mapping, or what is missing or unknown in `fields`. */
export const presetStages = (preset: Preset, mapping: FieldMapping): ReadonlyArray<Stage> | string => {
  const fields: Record<string, ReadonlyArray<string>> = {}
  for (const [name, what] of Object.entries(preset.inputs)) {
    const mapped = mapping[name]
    if (mapped === undefined) return `fields.${name} is required by pipeline ${preset.name} (${what})`
    fields[name] = typeof mapped === "string" ? [mapped] : mapped
  }
  for (const name of Object.keys(mapping)) {
    if (!(name in preset.inputs))
      return `fields.${name}: pipeline ${preset.name} has no input ${name} (it has: ${Object.keys(preset.inputs).join(", ")})`
  }
  return preset.build(fields)
}
