import { type LeaseShape, Order, type OrderStoreShape } from "@hookgate/core"
import { Effect, Option } from "effect"

/** Deliberately broken protocols, as wrappers around a real store, to show the simulation sees their damage. */
export type BrokenVariant = "none" | "no-token-guard" | "insert-then-act"

/** `complete` and `release` applied with whatever token holds the lease now: a stale holder's result lands. */
const withoutTokenGuard = (store: OrderStoreShape, lease: LeaseShape): LeaseShape => {
  const current = (key: string, token: string) =>
    Effect.map(store.get(key), (order) =>
      Option.match(order, { onNone: () => token, onSome: (o) => o.leaseToken ?? token }))
  return {
    ...lease,
    complete: (key, token, receipt, options) =>
      Effect.flatMap(current(key, token), (holder) => lease.complete(key, holder, receipt, options)),
    release: (key, token, failure) => Effect.flatMap(current(key, token), (holder) => lease.release(key, holder, failure))
  }
}

/**
 * "Insert the id, then act": only the request that inserted sends; any later
 * request sees the row and treats the order as done, and nothing retries.
 */
const insertThenAct = (store: OrderStoreShape): OrderStoreShape => ({
  ...store,
  put: (order, options) =>
    Effect.map(store.put(order, options), (put) =>
      put._tag === "AlreadyStored" ? { _tag: "AlreadyStored" as const, order: new Order({ ...put.order, status: "sent" }) } : put),
  due: () => Effect.succeed([])
})

export const breakStore = (variant: BrokenVariant, store: OrderStoreShape, lease: LeaseShape) =>
  variant === "no-token-guard"
    ? { store, lease: withoutTokenGuard(store, lease) }
    : variant === "insert-then-act"
    ? { store: insertThenAct(store), lease }
    : { store, lease }
