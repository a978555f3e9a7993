/**
 * @hookgate/store-pg/testing: a throwaway PostgreSQL server for tests.
 */
export { PgTestServer } from "./pg-test-server.js"
