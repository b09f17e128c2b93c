// Stands in for undici's index in the bundle (`--alias:undici`): the HTTP client
// (src/service/http-undici.ts, through @effect/platform-node's undici client) uses its Agent and
// the request API that the index puts on every dispatcher. The index also loads fetch, WebSocket,
// EventSource, the cache and cookie APIs and the mocks (~2/3 of its 1.1 MB) and, through them,
// Node's own copy of undici (globalThis.Headers): CPU at the first request of every run.
// By path, not `undici/...`: the alias would take that for itself.
"use strict"
const Dispatcher = require("../../node_modules/undici/lib/dispatcher/dispatcher.js")
Object.assign(Dispatcher.prototype, require("../../node_modules/undici/lib/api/index.js"))
module.exports = { Agent: require("../../node_modules/undici/lib/dispatcher/agent.js"), Dispatcher }
