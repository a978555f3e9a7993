import { Data } from "effect"

/** An expected refusal: printed as one line, without a stack trace, with a non-zero exit code. */
export class OperatorRefusal extends Data.TaggedError("OperatorRefusal")<{ readonly message: string }> {}
