/**
 * Whether a command's traces reached the collector. The OTLP exporter sends batches in the background, retries a
 * failed one three times a second apart, then drops what comes for a minute, and at exit flushes what is left
 * within its shutdown timeout — and says nothing of any of it (a Debug log line at most). So its HTTP client is
 * watched instead: every batch (one request body, the same object on each retry) is remembered until an attempt
 * of it is answered 2xx, with the reason the last attempt failed.
 *
 * Each attempt is bounded by the export timeout. Once the command has ended, a batch gets one attempt: a retry a
 * second later would only hold up the exit (an unreachable collector used to add 3 s to every command). The
 * exporter retries every failure it is given, so at exit a failed attempt ends as a defect, the one outcome it
 * does not retry; it catches it like any failure of an export.
 *
 * Loaded only when traces are exported (it imports @effect/platform's HTTP client).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { RequestError } from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** What a command knows of its exported traces at its end. */
export interface Delivery {
  /** The HTTP client the exporter is given: fetch, watched. */
  readonly layer: Layer.Layer<HttpClient.HttpClient>
  /** Marks the command's end: from now on each batch has one attempt. */
  readonly closing: Effect.Effect<void>
  /** Why a batch was not delivered (the last failure), or `undefined` when every batch was. */
  readonly undelivered: Effect.Effect<string | undefined>
}

/** The failure of the last attempt at a batch, when the command has ended and no retry should follow. */
class NotRetriedAtExit extends Error {}

/** An attempt still running when the exporter stopped: a background export the exit cut short, or the last one. */
const cutOff = "the command ended before the collector answered"

/** The innermost `code` of an error's cause chain (undici hides ECONNREFUSED and the like under "fetch failed"). */
const systemCode = (error: unknown): string | undefined => {
  let code: string | undefined
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    const own = (current as { code?: unknown }).code
    if (typeof own === "string") code = own
    current = (current as { cause?: unknown }).cause
  }
  return code
}

/**
 * Why an attempt that got no HTTP answer failed, in a few words: by the system's code, else by the attempt's own
 * description (its timeout). fetch's words are not repeated: a header it refuses, it quotes, and that may be a
 * credential.
 */
const transportReason = (error: HttpClientError): string => {
  const code = systemCode(error.cause)
  if (code === "ECONNREFUSED") return "the connection was refused (ECONNREFUSED)"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host was not found (${code})`
  if (code !== undefined) return `the connection failed (${code})`
  return error.description ?? "the request could not be sent"
}

/** The client `make` watches, with each attempt bounded by `timeout`. */
export const make = (timeout: Duration.Duration): Delivery => {
  const pending = new Set<unknown>()
  let reason: string | undefined
  let ended = false
  const failed = (batch: unknown, why: string): void => {
    pending.add(batch)
    reason = why
  }
  const within = `the collector did not answer within ${Duration.format(timeout)}`
  const watched = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (attempt, request) => {
      const batch = request.body
      // Remembered from the start: an attempt cut off at exit never reports back.
      pending.add(batch)
      return attempt.pipe(
        // Stryker disable next-line StringLiteral: the reason is read only when an error has no description, and this one has
        Effect.timeoutFail({ duration: timeout, onTimeout: () => new RequestError({ request, reason: "Transport", description: within }) }),
        Effect.tap((response: HttpClientResponse.HttpClientResponse) => {
          // fetch gives only final answers (200 and up): below 300 is 2xx.
          if (response.status < 300) {
            pending.delete(batch)
            return Effect.void
          }
          failed(batch, `the collector answered HTTP ${response.status}`)
          return ended ? Effect.die(new NotRetriedAtExit(reason)) : Effect.void
        }),
        Effect.tapError((error) => {
          failed(batch, transportReason(error))
          return ended ? Effect.die(new NotRetriedAtExit(reason)) : Effect.void
        }),
        Effect.onInterrupt(() => Effect.sync(() => failed(batch, cutOff)))
      )
    })
  return {
    layer: Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, watched)).pipe(Layer.provide(FetchHttpClient.layer)),
    closing: Effect.sync(() => {
      ended = true
    }),
    undelivered: Effect.sync(() => (pending.size === 0 ? undefined : reason ?? cutOff))
  }
}
