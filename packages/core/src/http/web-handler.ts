import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import type * as Layer from "effect/Layer"

/**
 * A Web-standard `(Request) => Promise<Response>` handler for a router, with
 * the layer built once (once per isolate on Workers), on the first request.
 */
export const toWebHandler = <E, R, LE>(router: HttpRouter.HttpRouter<E, R>, layer: Layer.Layer<R, LE>) =>
  HttpApp.toWebHandlerLayer(router, layer)
