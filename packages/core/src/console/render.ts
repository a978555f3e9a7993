import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import Mustache from "mustache"
import * as templates from "./templates.js"

/**
 * Every console response carries these: a CSP that allows scripts and styles from
 * the console's own origin only (no inline script, no eval), no framing, no
 * referrer, and no caching of pages that show buyers' data.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
}

export type PageName = Exclude<keyof typeof templates, "layout" | "progress">

/** What the layout needs besides a page's own view. */
export interface Frame {
  readonly base: string
  readonly title: string
  readonly session?: { readonly csrf: string; readonly operator: string } | undefined
  readonly flash?: { readonly kind: "info" | "error"; readonly text: string } | undefined
  readonly script?: boolean
}

// Bidirectional controls (LRE/RLE/PDF/LRO/RLO, the isolates, the marks) would reorder what an
// operator reads ("invoice\u202Egnp.exe" shows as "invoiceexe.png"): they are shown as their code points.
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g
const reveal = (text: string) => text.replace(BIDI, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}]`)

/** Mustache's own HTML escaping, after the bidi controls are made visible. */
const escape = (value: unknown) => Mustache.escape(reveal(String(value)))

/** A page: its template rendered inside the layout, every value escaped by Mustache. */
export const page = (name: PageName, frame: Frame, view: object, status = 200) =>
  Effect.sync(() => HttpServerResponse.text(
    Mustache.render(
      templates.layout,
      { ...view, ...frame, csrf: frame.session?.csrf, operator: frame.session?.operator },
      { content: templates[name], progress: templates.progress },
      { escape }
    ),
    { status, contentType: "text/html; charset=utf-8", headers: securityHeaders }
  ))

/** A short page with one sentence (404s, refusals, results). */
export const notice = (frame: Frame, text: string, status: number, back?: string) =>
  page("message", frame, { text, back }, status)
