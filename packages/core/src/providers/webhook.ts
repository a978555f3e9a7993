import * as Schema from "effect/Schema"

/**
 * A webhook as it arrived: the raw body bytes (signatures are computed over
 * these, never over re-serialised JSON) and the headers with lower-cased names.
 */
export class WebhookRequest extends Schema.Class<WebhookRequest>("WebhookRequest")({
  body: Schema.Uint8ArrayFromSelf,
  headers: Schema.Record({ key: Schema.String, value: Schema.String })
}) {
  /** Builds a request from any header shape, lower-casing the names. */
  static fromParts(body: Uint8Array, headers: Iterable<readonly [string, string]> | Record<string, string>) {
    const entries = Symbol.iterator in headers
      ? Array.from(headers as Iterable<readonly [string, string]>)
      : Object.entries(headers)
    const lowered: Record<string, string> = {}
    // What the schema checks, checked on the way: bytes and string values (names are, or toLowerCase throws).
    let checked = body instanceof Uint8Array
    for (const [name, value] of entries) {
      checked &&= typeof value === "string"
      const key = name.toLowerCase()
      // Repeated headers are joined as HTTP allows; verifiers then see the duplication.
      lowered[key] = key in lowered ? `${lowered[key]}, ${value}` : value
    }
    // Anything else goes through the schema, which refuses it as before.
    return new WebhookRequest({ body, headers: lowered }, checked)
  }

  /** A header's value, by case-insensitive name. */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()]
  }

  /** The body decoded as UTF-8 (lenient; verification uses the bytes). */
  get text(): string {
    return new TextDecoder().decode(this.body)
  }
}

/** An event whose signature checked out, with its JSON payload parsed but not yet decoded. */
export class VerifiedEvent extends Schema.Class<VerifiedEvent>("VerifiedEvent")({
  provider: Schema.String,
  id: Schema.String,
  type: Schema.String,
  payload: Schema.Unknown
}) {}
