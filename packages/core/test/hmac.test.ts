import { describeEachHmac, hmacImplementations } from "@hookgate/testing/conformance"
import { NodeHmac } from "@hookgate/core/node"
import { Digest, Fulfilment, fulfilmentHash } from "@hookgate/core"
import { fromHex, Hmac, hmacSha256, importHmacKey, toHex, utf8, webCryptoHmac } from "@hookgate/core/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"

// RFC 4231 test case 2 (a short key) and case 6 (a key longer than the block, hashed first).
const vectors = [
  {
    key: utf8("Jefe"),
    data: utf8("what do ya want for nothing?"),
    mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
  },
  {
    key: new Uint8Array(131).fill(0xaa),
    data: utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
    mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
  }
]

describe("Hmac", () => {
  it.effect("is Web Crypto unless a layer selects another; NodeHmac.layer() selects node:crypto", () =>
    Effect.gen(function*() {
      expect((yield* Hmac).name).toBe("web-crypto")
      expect((yield* Effect.provide(Hmac, NodeHmac.layer())).name).toBe("node:crypto")
      expect(hmacImplementations.map((h) => h.name)).toEqual(["web-crypto", "node:crypto"])
      expect(webCryptoHmac).toBe(hmacImplementations[0])
    }))
})

describe("Digest", () => {
  it.effect("is Web Crypto unless a layer selects another; NodeHmac.layer() selects node:crypto for it too", () =>
    Effect.gen(function*() {
      expect((yield* Digest).name).toBe("web-crypto")
      expect((yield* Effect.provide(Digest, NodeHmac.layer())).name).toBe("node:crypto")
    }))

  it.effect("hashes with the Digest in context", () =>
    Effect.gen(function*() {
      const hashed: Array<string> = []
      const recording = {
        name: "recording",
        sha256: (bytes: Uint8Array) => {
          hashed.push(new TextDecoder().decode(bytes))
          return Effect.succeed(new Uint8Array(32))
        }
      }
      expect(yield* Effect.provideService(fulfilmentHash(fixtureFulfilment), Digest, recording)).toBe(`sha256:${"00".repeat(32)}`)
      expect(hashed).toEqual([JSON.stringify(["buyer@example.com", "licence", 1000, "eur"])])
    }))
})

const fixtureFulfilment = new Fulfilment({
  orderKey: "test:1",
  email: "Buyer@Example.com",
  product: "licence",
  amount: 1000,
  currency: "EUR",
  metadata: {}
})

describeEachHmac("an HMAC implementation", (it, hmac) => {
  it.effect("computes RFC 4231's HMAC-SHA256 vectors, over one part or the same bytes split", () =>
    Effect.gen(function*() {
      for (const vector of vectors) {
        const key = yield* importHmacKey(vector.key)
        expect(key.implementation).toBe(hmac.name)
        expect(toHex(yield* hmacSha256(key, vector.data))).toBe(vector.mac)
        expect(toHex(yield* hmacSha256(key, vector.data.subarray(0, 5), vector.data.subarray(5)))).toBe(vector.mac)
        if (key.signSync !== undefined) expect(toHex(key.signSync([vector.data]))).toBe(vector.mac)
      }
    }))

  it.effect("computes FIPS 180-2's SHA-256 vectors with the digest of its runtime", () =>
    Effect.gen(function*() {
      const digest = yield* Digest
      expect(digest.name).toBe(hmac.name)
      expect(toHex(yield* digest.sha256(utf8("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
      expect(toHex(yield* digest.sha256(utf8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      )
    }))

  it.effect("agrees with node:crypto's createHmac on a 2 KiB body with a prefix", () =>
    Effect.gen(function*() {
      const secret = "whsec_cross_check"
      const body = utf8(`{"note":"${"é".repeat(1000)}"}`)
      const key = yield* importHmacKey(secret)
      const expected = createHmac("sha256", secret).update("1760000000.").update(body).digest("hex")
      expect(toHex(yield* hmacSha256(key, utf8("1760000000."), body))).toBe(expected)
    }))

  it.effect("compares MACs: equal, one bit off, and of another length", () =>
    Effect.gen(function*() {
      const key = yield* importHmacKey("k")
      const mac = yield* hmacSha256(key, utf8("m"))
      expect(key.equals(mac, Uint8Array.from(mac))).toBe(true)
      const flipped = Uint8Array.from(mac)
      flipped[31] = flipped[31]! ^ 1
      expect(key.equals(mac, flipped)).toBe(false)
      expect(key.equals(mac, mac.subarray(0, 31))).toBe(false)
      expect(key.equals(new Uint8Array(0), new Uint8Array(0))).toBe(true)
    }))
})

describe("byte helpers", () => {
  it("hex both ways, either case; odd length or a non-hex digit is undefined", () => {
    expect(toHex(fromHex("00ff7Fa0")!)).toBe("00ff7fa0")
    for (const bad of ["abc", "zz", "0g", "é0", " 0"]) expect(fromHex(bad)).toBeUndefined()
    expect(fromHex("")).toEqual(new Uint8Array(0))
  })

  it("utf8 of short ASCII, non-ASCII and long text is the encoder's", () => {
    const encoder = new TextEncoder()
    for (const text of ["", "1760000000.", "msg_1.1760000000.", "zoë.", "日本", "x".repeat(65), "\u007f\u0080"]) {
      expect(utf8(text)).toEqual(encoder.encode(text))
    }
  })
})
