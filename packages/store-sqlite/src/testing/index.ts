/**
 * @hookgate/store-sqlite/testing: helpers for tests of what a damaged SQLite file does
 * (`SqliteFiles.tearPage`).
 */
export * as SqliteFiles from "./SqliteFiles.js"
