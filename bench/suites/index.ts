import type { BenchSuite } from "../lib.js"
import { campaignsSuite } from "./campaigns.js"
import { httpSuite } from "./http.js"
import { httpStressSuite } from "./http-stress.js"
import { pipelineSuite } from "./pipeline.js"
import { postgresSuite } from "./postgres.js"
import { sweepSuite } from "./sweep.js"
import { verifySuite } from "./verify.js"
import { workerSuite } from "./worker.js"

/** Every benchmark suite, in the order the table prints them. */
export const suites: ReadonlyArray<BenchSuite> = [pipelineSuite, sweepSuite, verifySuite, campaignsSuite, postgresSuite, httpSuite, httpStressSuite, workerSuite]
