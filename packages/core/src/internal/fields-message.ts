/**
 * The message `Schema.TaggedError` gives an error without one of its own,
 * `{ "orderKey": "o1" }`, for the `Data.TaggedError` classes that took their place
 * (a Schema class costs a Worker's module evaluation ~0.6 ms each). String and
 * boolean fields, formatted as Effect's `Inspectable.formatUnknown` formats them.
 */
export const fieldsMessage = <A extends { readonly [K in F]: string | boolean }, F extends string>(
  error: A,
  fields: ReadonlyArray<F>
): string =>
  `{ ${
    fields.map((field) => {
      const value = error[field]
      return `${JSON.stringify(field)}: ${typeof value === "string" ? JSON.stringify(value) : String(value)}`
    }).join(", ")
  } }`
