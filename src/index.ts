/**
 * svc-batch as a library: the TextService client (usable on its own from any Effect program), its
 * schemas, errors and helpers, and the emulator.
 */
export { Paths, TextService, type ChatInput, type Moderation } from "./service/client.ts"
export { envProvider, layerFromEnv, ServiceConfig, type ServiceSettings } from "./service/config.ts"
export * from "./service/errors.ts"
export { httpClientLayer } from "./service/http.ts"
export { Categories, CategoryCodes, parseVerdict, type Category, type CategoryCode, type Verdict } from "./service/moderation.ts"
export { codePointLength, Limits, Models, utf8Bytes } from "./service/limits.ts"
export { countTokens, withinTokens } from "./service/tokens.ts"
export * from "./service/schemas/chat.ts"
export * from "./service/schemas/endpoints.ts"
export { assembleChunks, decodeChatStream } from "./service/sse.ts"
export { ToolCallError, toolRoundTrip, type RoundTrip, type ToolHandler } from "./service/tools.ts"
export { Emulator } from "./emulator/emulator.ts"
export type { EmulatorOptions, RequestLogEntry } from "./emulator/options.ts"
export { startEmulator, type RunningEmulator } from "./emulator/server.ts"
