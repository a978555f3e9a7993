import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"

/**
 * For a schema that is a struct of required string fields (each `Schema.String`
 * or a refinement of it, such as `Schema.NonEmptyString`), and nothing else, a
 * plain check that answers what decoding it would: the declared fields, when
 * every one is a string that passes its refinements; undefined when decoding
 * might fail, so the caller decodes with the schema for the message. Undefined
 * for any other schema (a transformation, an optional field, an index
 * signature), which the caller always decodes. Decoding a two-field envelope
 * through the schema costs more than the rest of a webhook's checks after the
 * MAC but JSON itself; this check costs nothing measurable.
 */
export const stringStructCheck = (ast: AST.AST): ((input: unknown) => Record<string, string> | undefined) | undefined => {
  if (!AST.isTypeLiteral(ast) || ast.indexSignatures.length > 0) return undefined
  const fields: Array<readonly [string, ReadonlyArray<AST.Refinement>]> = []
  for (const signature of ast.propertySignatures) {
    if (signature.isOptional || typeof signature.name !== "string") return undefined
    const refinements: Array<AST.Refinement> = []
    let type = signature.type
    while (AST.isRefinement(type)) {
      refinements.unshift(type)
      type = type.from
    }
    if (!AST.isStringKeyword(type)) return undefined
    fields.push([signature.name, refinements])
  }
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
    const out: Record<string, string> = {}
    for (const [name, refinements] of fields) {
      if (!Object.hasOwn(input, name)) return undefined
      const value = (input as Record<string, unknown>)[name]
      if (typeof value !== "string") return undefined
      for (const refinement of refinements) {
        if (Option.isSome(refinement.filter(value, AST.defaultParseOption, refinement))) return undefined
      }
      out[name] = value
    }
    return out
  }
}
