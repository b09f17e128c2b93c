/**
 * PostJson: the transport of TextService's request/response calls — a JSON body POSTed, the
 * answer read whole as text. httpClientLayer provides it over undici (http-undici.ts); without it
 * TextService sends through the HttpClient it is given, as it does for streams.
 */
import { Context, Data, type Effect } from "effect"

/** What the client reads of an answer. */
export interface PostAnswer {
  readonly status: number
  readonly contentType: string | undefined
  readonly retryAfter: string | undefined
  readonly text: string
}

/** The request could not be sent, or its answer not read (`cause`: the transport's error). */
export class PostFailed extends Data.TaggedError("PostFailed")<{ readonly message: string; readonly cause: unknown }> {}

export type PostJson = (url: string, authorization: string, body: string) => Effect.Effect<PostAnswer, PostFailed>

export class ServicePost extends Context.Tag("svc-batch/ServicePost")<ServicePost, PostJson>() {}
