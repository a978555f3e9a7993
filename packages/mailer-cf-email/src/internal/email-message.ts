import type { EmailMessageConstructor } from "../binding.js"

// A variable specifier: neither TypeScript nor a bundler resolves it, so this
// package type-checks and bundles without `cloudflare:email`; workerd resolves it at run time.
const CLOUDFLARE_EMAIL = "cloudflare:email"

let loaded: Promise<EmailMessageConstructor> | undefined

/** `EmailMessage` from `cloudflare:email`, imported once (Workers only). */
export const importEmailMessage = (): Promise<EmailMessageConstructor> => {
  loaded ??= (import(/* @vite-ignore */ CLOUDFLARE_EMAIL) as Promise<{ EmailMessage: EmailMessageConstructor }>).then(
    (module) => module.EmailMessage,
    (error: unknown) => {
      loaded = undefined
      throw error
    }
  )
  return loaded
}
