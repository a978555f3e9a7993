import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { OutgoingEmail } from "../mail/email.js"
import type { Order } from "./order.js"
import { RenderError } from "./errors.js"

/** Renders the email of an order. */
export interface RendererShape {
  readonly render: (order: Order) => Effect.Effect<OutgoingEmail, RenderError>
}

/** The merchant's function from an order (and its fulfilment) to the email the buyer gets. */
export class Renderer extends Context.Tag("@hookgate/core/Renderer")<Renderer, RendererShape>() {
  /** A renderer from a plain function; a thrown error becomes a `RenderError`. */
  static fromFunction(render: (order: Order) => OutgoingEmail): Layer.Layer<Renderer> {
    return Layer.succeed(Renderer, {
      render: (order) =>
        Effect.try({
          try: () => render(order),
          catch: (cause) => new RenderError({ orderKey: order.key, detail: String(cause) })
        })
    })
  }
}
