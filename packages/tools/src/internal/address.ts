/**
 * What kind of address an IP address is, for the fetch guard: public ones may be connected to; loopback,
 * private, link-local, unspecified, multicast and reserved ones only when allowed explicitly.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net"

/** The address as URLs spell it (IPv6 compressed, lower case, no brackets). */
export const canonicalAddress = (address: string): string => {
  if (!isIPv6(address)) return address
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address.toLowerCase()
  }
}

const ranges: ReadonlyArray<readonly [kind: string, prefix: string, bits: number, family: "ipv4" | "ipv6"]> = [
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["shared (carrier-grade NAT)", "100.64.0.0", 10, "ipv4"],
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["reserved", "192.0.0.0", 24, "ipv4"],
  ["documentation", "192.0.2.0", 24, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  ["benchmarking", "198.18.0.0", 15, "ipv4"],
  ["documentation", "198.51.100.0", 24, "ipv4"],
  ["documentation", "203.0.113.0", 24, "ipv4"],
  ["multicast", "224.0.0.0", 4, "ipv4"],
  ["reserved", "240.0.0.0", 4, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "::1", 128, "ipv6"],
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "fe80::", 10, "ipv6"],
  ["site-local", "fec0::", 10, "ipv6"],
  ["multicast", "ff00::", 8, "ipv6"],
  ["documentation", "2001:db8::", 32, "ipv6"],
  ["reserved", "100::", 64, "ipv6"]
]

const lists = ranges.map(([kind, prefix, bits, family]) => {
  const list = new BlockList()
  list.addSubnet(prefix, bits, family)
  return [kind, list, family] as const
})

/** The IPv4 address inside an IPv4-mapped, -compatible or NAT64 IPv6 address, if there is one. */
const embeddedIPv4 = (address: string): string | undefined => {
  const canonical = canonicalAddress(address)
  const match = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (match === null) return undefined
  const high = parseInt(match[1]!, 16)
  const low = parseInt(match[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) stands for; any other address as it is. */
export const unmapped = (address: string): string => {
  const canonical = canonicalAddress(address)
  return /^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(canonical) ? embeddedIPv4(canonical)! : canonical
}

/** `"public"`, or the kind of non-public address (`"loopback"`, `"private"`, `"link-local"`, ...). */
export const classify = (address: string): string => {
  if (isIPv6(address)) {
    const inner = embeddedIPv4(address)
    if (inner !== undefined) return classify(inner)
  } else if (!isIPv4(address)) return "invalid"
  const family = isIPv6(address) ? "ipv6" : "ipv4"
  for (const [kind, list, listFamily] of lists) if (listFamily === family && list.check(address, family)) return kind
  return "public"
}
