/**
 * svc-batch as a library: the TextService client (usable on its own from any Effect program), its
 * schemas, errors and helpers; the engine (pipelines of stages over records in memory, or a whole
 * run from a source to a sink with the ledger); the stages; and the emulator.
 */
export { Paths, TextService, type ChatInput, type Moderation } from "./service/client.ts"
export { envProvider, layerFromEnv, ServiceConfig, type ServiceSettings } from "./service/config.ts"
export * from "./service/errors.ts"
export { httpClientLayer } from "./service/http.ts"
export {
  Categories,
  CategoryCodes,
  parseVerdict,
  type Category,
  type CategoryCode,
  type Verdict
} from "./service/moderation.ts"
export { codePointLength, Limits, Models, utf8Bytes } from "./service/limits.ts"
export { countTokens, withinTokens } from "./service/tokens.ts"
export * from "./service/schemas/chat.ts"
export * from "./service/schemas/endpoints.ts"
export { assembleChunks, decodeChatStream } from "./service/sse.ts"
export { ToolCallError, toolRoundTrip, type RoundTrip, type ToolHandler } from "./service/tools.ts"
export { Emulator } from "./emulator/emulator.ts"
export type { EmulatorOptions, RequestLogEntry } from "./emulator/options.ts"
export { startEmulator, type RunningEmulator } from "./emulator/server.ts"

// The engine and the stages.
export {
  makePipeline,
  makeRequest,
  prepared,
  type Pipeline,
  type Stage,
  type StageRequest,
  type Fields,
  type Row
} from "./pipeline/stage.ts"
export { parseCondition, type Condition } from "./pipeline/condition.ts"
export { processRecords, type ProcessedRecord, type ProcessOptions } from "./engine/records/in-memory-run.ts"
export { runPipeline, type RunSettings, type RunSummary } from "./engine/runner.ts"
export { RunStats } from "./engine/run-stats.ts"
export { defaultRetryPolicy, type RetryPolicy } from "./engine/flow/retry.ts"
export { Ledger, type LedgerService } from "./ledger/ledger.ts"
export { SqliteLedger } from "./ledger/sqlite-ledger.ts"
export { cutUnits, openSource } from "./io/sources/index.ts"
export { sinks } from "./io/sinks/index.ts"
export { column, ColumnType, type Column } from "./pipeline/columns.ts"
export { moderate, type ModerateOptions } from "./stages/moderate.ts"
export { translate, type TranslateOptions } from "./stages/translate.ts"
export { embed, type EmbedOptions } from "./stages/embed.ts"
export { rerank, type RerankOptions } from "./stages/rerank.ts"
export { generate, type GenerateOptions, type GenerateTool } from "./stages/generate.ts"
