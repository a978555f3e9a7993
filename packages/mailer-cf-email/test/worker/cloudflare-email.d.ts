// workerd's built-in module, typed for the test Worker without @cloudflare/workers-types
// (whose globals clash with the DOM and Node types this project compiles with).
declare module "cloudflare:email" {
  export const EmailMessage: import("../../src/binding.js").EmailMessageConstructor
}
