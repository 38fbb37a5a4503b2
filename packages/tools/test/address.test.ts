import { describe, expect, it } from "@effect/vitest"

// Imported inside the tests, not at this file's import: the ranges are built when the module loads, and a range
// Node refuses would otherwise fail the import rather than a test.
const load = () => import("../src/internal/address.js")

/** Each range's first and last address, and the addresses just outside it (when those are public). */
const kinds: ReadonlyArray<readonly [address: string, kind: string]> = [
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["1.0.0.0", "public"],
  ["9.255.255.255", "public"],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["11.0.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.64.0.0", "shared (carrier-grade NAT)"],
  ["100.127.255.255", "shared (carrier-grade NAT)"],
  ["100.128.0.0", "public"],
  ["126.255.255.255", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.255", "loopback"],
  ["128.0.0.0", "public"],
  ["169.253.255.255", "public"],
  ["169.254.0.0", "link-local"],
  ["169.254.169.254", "link-local"],
  ["169.255.0.0", "public"],
  ["172.15.255.255", "public"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", "public"],
  ["192.0.0.0", "reserved"],
  ["192.0.0.255", "reserved"],
  ["192.0.1.0", "public"],
  ["192.0.2.0", "documentation"],
  ["192.0.2.255", "documentation"],
  ["192.0.3.0", "public"],
  ["192.167.255.255", "public"],
  ["192.168.0.0", "private"],
  ["192.168.255.255", "private"],
  ["192.169.0.0", "public"],
  ["198.17.255.255", "public"],
  ["198.18.0.0", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["198.51.100.7", "documentation"],
  ["198.51.101.0", "public"],
  ["203.0.113.7", "documentation"],
  ["203.0.114.0", "public"],
  ["223.255.255.255", "public"],
  ["224.0.0.0", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.0", "reserved"],
  ["255.255.255.255", "reserved"],
  ["8.8.8.8", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::2", "public"],
  ["fbff:ffff::", "public"],
  ["fc00::", "private"],
  ["fd12:3456::1", "private"],
  ["fdff:ffff::", "private"],
  ["fe00::", "public"],
  ["fe80::", "link-local"],
  ["FE80::1", "link-local"],
  ["febf:ffff::", "link-local"],
  ["fec0::", "site-local"],
  ["feff:ffff::", "site-local"],
  ["ff00::", "multicast"],
  ["ff02::1", "multicast"],
  ["2001:db8::", "documentation"],
  ["2001:db8:ffff:ffff::", "documentation"],
  ["2001:db9::", "public"],
  ["100::", "reserved"],
  ["100::ffff:ffff:ffff:ffff", "reserved"],
  ["100:0:0:1::", "public"],
  ["2606:4700::1111", "public"]
]

describe("Address.classify", () => {
  it("names the kind of every non-public range, at its edges; everything else is public", async () => {
    const { classify } = await load()
    expect(kinds.filter(([address, kind]) => classify(address) !== kind).map(([address, kind]) => `${address}: ${classify(address)}, not ${kind}`)).toStrictEqual([])
  })

  it("reads an IPv4 address carried in IPv6 (mapped, compatible, NAT64) as that IPv4 address", async () => {
    const { classify } = await load()
    expect(classify("::ffff:127.0.0.1")).toBe("loopback")
    expect(classify("::ffff:7f00:1")).toBe("loopback")
    expect(classify("::FFFF:A9FE:A9FE")).toBe("link-local")
    expect(classify("::ffff:0:1")).toBe("unspecified")
    expect(classify("::ffff:808:808")).toBe("public")
    expect(classify("::10.1.2.3")).toBe("private")
    expect(classify("64:ff9b::169.254.169.254")).toBe("link-local")
    expect(classify("64:ff9b::8.8.8.8")).toBe("public")
  })

  it("reads nothing else as an embedded IPv4 address", async () => {
    const { classify } = await load()
    // A known IPv6 range whose last two groups would spell 127.0.0.1.
    expect(classify("2001:db8::7f00:1")).toBe("documentation")
    // Three groups after `::`: not an IPv4-compatible address.
    expect(classify("::7f00:1:2")).toBe("public")
    expect(classify("::1:7f00:1")).toBe("public")
    expect(classify("1::ffff:7f00:1")).toBe("public")
  })

  it("says invalid for what is no IP address", async () => {
    const { classify } = await load()
    for (const text of ["example.com", "", "127.1", "::g", "[::1]"]) expect(classify(text), text).toBe("invalid")
  })
})

describe("Address.unmapped", () => {
  it("gives the IPv4 address an IPv4-mapped IPv6 address stands for", async () => {
    const { unmapped } = await load()
    expect(unmapped("::ffff:10.1.2.3")).toBe("10.1.2.3")
    expect(unmapped("::FFFF:0a01:0203")).toBe("10.1.2.3")
    expect(unmapped("::ffff:a9fe:a9fe")).toBe("169.254.169.254")
    expect(unmapped("::ffff:0:1")).toBe("0.0.0.1")
    expect(unmapped("::ffff:ff01:8000")).toBe("255.1.128.0")
  })

  it("gives any other address in its canonical spelling", async () => {
    const { unmapped } = await load()
    expect(unmapped("10.1.2.3")).toBe("10.1.2.3")
    expect(unmapped("0:0:0:0:0:0:0:1")).toBe("::1")
    // IPv4-compatible and NAT64 addresses are addresses of their own, not the IPv4 one.
    expect(unmapped("::10.1.2.3")).toBe("::a01:203")
    expect(unmapped("64:ff9b::10.1.2.3")).toBe("64:ff9b::a01:203")
    expect(unmapped("1::ffff:a01:203")).toBe("1::ffff:a01:203")
    expect(unmapped("::ffff:a01:203:4")).toBe("::ffff:a01:203:4")
  })
})

describe("Address.canonicalAddress", () => {
  it("spells IPv6 as URLs do (compressed, lower case, no brackets), and leaves anything else alone", async () => {
    const { canonicalAddress } = await load()
    expect(canonicalAddress("2001:0DB8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1")
    expect(canonicalAddress("::ffff:127.0.0.1")).toBe("::ffff:7f00:1")
    expect(canonicalAddress("127.0.0.1")).toBe("127.0.0.1")
    expect(canonicalAddress("Example.COM")).toBe("Example.COM")
    // A zone URLs cannot carry: lower case, as it is.
    expect(canonicalAddress("FE80::1%ETH0")).toBe("fe80::1%eth0")
  })
})
