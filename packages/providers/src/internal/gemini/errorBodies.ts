/**
 * @google/genai reads an error response as JSON whenever its content type says JSON; a proxy's or load balancer's
 * error page sent as `application/json` (or an empty body) then surfaces as a bare `SyntaxError`, the HTTP status
 * lost, and a 500 or 503 reads as a malformed answer instead of a retryable outage. This `fetch` hands the SDK such
 * a body as plain text, which it wraps into an `ApiError` with the status, as it does for any text body.
 */
export const plainErrorBodies = (base: typeof globalThis.fetch): typeof globalThis.fetch =>
  async (input, init) => {
    const response = await base(input, init)
    // Stryker disable next-line StringLiteral: any fallback without "json" in it is the same (no content type: not JSON)
    if (response.ok || !/json/i.test(response.headers.get("content-type") ?? "")) return response
    const text = await response.text()
    let readable = true
    try {
      JSON.parse(text)
    } catch {
      readable = false
    }
    const headers = new Headers(response.headers)
    headers.delete("content-length")
    headers.delete("content-encoding")
    if (!readable) headers.set("content-type", "text/plain; charset=utf-8")
    const rebuilt = new Response(text, { status: response.status, statusText: response.statusText, headers })
    Object.defineProperty(rebuilt, "url", { value: response.url })
    return rebuilt
  }
