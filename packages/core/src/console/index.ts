/**
 * @hookgate/core/console: the operator console, server-rendered HTML under `/console`,
 * runtime-neutral (the Node gateway and a Worker mount the same routes).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { type ConsoleOptions, consoleKit } from "./kit.js"
import { consolePages } from "./pages.js"

export type { ConsoleOptions } from "./kit.js"

/**
 * The console's routes: sign-in with the admin token into a signed session cookie
 * (HttpOnly, SameSite=Strict, Secure over HTTPS, expiring), the overview, orders
 * (filtered, searched, paged; an order's timeline, retry now, send again), alerts
 * (resolve with a note) and campaigns (progress, pause, resume). Every form that
 * changes something carries a CSRF token; every page a CSP without inline script.
 * Without an admin token every console path answers 404.
 */
export const consoleRoutes = (options: ConsoleOptions) => {
  const kit = consoleKit(options)
  return HttpRouter.concat(kit.assets, consolePages(kit))
}
