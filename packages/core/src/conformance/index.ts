/**
 * @hookgate/core/conformance: the suites every store runs (needs @effect/vitest).
 */
export { storeConformance } from "./store-conformance.js"
export { pipelineBehaviours, type Scenario } from "./pipeline-behaviours.js"
export { eventually, newOrder, TEST_SECRET } from "../testing/fixtures.js"
