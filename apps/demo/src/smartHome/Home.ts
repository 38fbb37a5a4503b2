/**
 * The smart home of the Live demo: three devices, the two tools the model may call on them, and a slow scan for new
 * ones. The state lives in a `SynchronizedRef`, so every call the model makes changes (or reads) what the next call
 * sees; a request the devices cannot honour (no such device, a setting the device does not have, a value out of range) fails with
 * `DeviceError`, which the model hears as an error response and can explain.
 */
import { Registry, Tool } from "@agentfx/core"
import { Effect, Schema, SynchronizedRef } from "effect"

export const DeviceKind = Schema.Literal("light", "thermostat", "lock")
export type DeviceKind = typeof DeviceKind.Type

/** What a device reports; only the settings of its kind are present. */
export const Device = Schema.Struct({
  device_name: Schema.String,
  kind: DeviceKind,
  status: Schema.String,
  brightness: Schema.optional(Schema.Number),
  color: Schema.optional(Schema.String),
  temperature_celsius: Schema.optional(Schema.Number)
})
export type Device = typeof Device.Type

export class DeviceError extends Schema.TaggedError<DeviceError>()("DeviceError", { message: Schema.String }) {}

/** The devices the demo starts with. */
export const initialDevices: ReadonlyArray<Device> = [
  { device_name: "living room lamp", kind: "light", status: "off", brightness: 80, color: "warm white" },
  { device_name: "kitchen thermostat", kind: "thermostat", status: "on", temperature_celsius: 20 },
  { device_name: "front door lock", kind: "lock", status: "locked" }
]

/** The statuses each kind accepts. */
const statuses: Record<DeviceKind, ReadonlyArray<string>> = { light: ["on", "off"], thermostat: ["on", "off"], lock: ["locked", "unlocked"] }

const Setting = Schema.Struct({
  temperature_celsius: Schema.optional(Schema.Number.annotations({ description: "Target temperature, 5 to 30 °C (thermostats)" })),
  brightness: Schema.optional(Schema.Number.annotations({ description: "0 to 100 % (lights)" })),
  color: Schema.optional(Schema.String.annotations({ description: "A color name (lights)" }))
})
type Setting = typeof Setting.Type

export interface Home {
  readonly registry: Registry.Registry
  readonly devices: Effect.Effect<ReadonlyArray<Device>>
}

const find = (devices: ReadonlyArray<Device>, name: string): Effect.Effect<Device, DeviceError> => {
  const device = devices.find((candidate) => candidate.device_name === name.trim().toLowerCase())
  return device === undefined
    ? Effect.fail(new DeviceError({ message: `there is no device named "${name}"; the devices are: ${devices.map((d) => d.device_name).join(", ")}` }))
    : Effect.succeed(device)
}

/** The device after `status` and `setting`, or why the device cannot do that. */
const updated = (device: Device, status: string, setting: Setting | undefined): Effect.Effect<Device, DeviceError> => {
  const refuse = (message: string) => Effect.fail(new DeviceError({ message: `${device.device_name}: ${message}` }))
  if (!statuses[device.kind].includes(status)) return refuse(`the status must be one of ${statuses[device.kind].join(", ")}, not "${status}"`)
  let next: Device = { ...device, status }
  const { temperature_celsius, brightness, color } = setting ?? {}
  if (temperature_celsius !== undefined) {
    if (device.kind !== "thermostat") return refuse("only a thermostat has a temperature")
    if (!(temperature_celsius >= 5 && temperature_celsius <= 30)) return refuse(`the temperature must be between 5 and 30 °C, not ${temperature_celsius}`)
    next = { ...next, temperature_celsius }
  }
  if (brightness !== undefined) {
    if (device.kind !== "light") return refuse("only a light has a brightness")
    if (!(brightness >= 0 && brightness <= 100)) return refuse(`the brightness must be between 0 and 100 %, not ${brightness}`)
    next = { ...next, brightness }
  }
  if (color !== undefined) {
    if (device.kind !== "light") return refuse("only a light has a color")
    if (color.trim() === "") return refuse("a color needs a name")
    next = { ...next, color: color.trim().toLowerCase() }
  }
  return Effect.succeed(next)
}

/** A home with `devices` (the demo's by default) and its tools. */
export const make = (devices: ReadonlyArray<Device> = initialDevices): Effect.Effect<Home> =>
  Effect.gen(function* () {
    const state = yield* SynchronizedRef.make(devices)
    const getDeviceStatus = Tool.make("get_device_status", {
      description: "Reads a smart-home device: its status and its settings (brightness and color of a light, temperature of a thermostat).",
      parameters: Schema.Struct({ device_name: Schema.String.annotations({ description: "The device's name, e.g. living room lamp" }) }),
      success: Device,
      failure: DeviceError,
      handler: ({ device_name }) => Effect.flatMap(SynchronizedRef.get(state), (all) => find(all, device_name))
    })
    const setDeviceStatus = Tool.make("set_device_status", {
      description: "Changes a smart-home device: its status (on / off, locked / unlocked) and optionally its settings.",
      parameters: Schema.Struct({
        device_name: Schema.String.annotations({ description: "The device's name, e.g. living room lamp" }),
        new_status: Schema.String.annotations({ description: "on or off (lights, thermostats), locked or unlocked (locks)" }),
        setting: Schema.optional(Setting)
      }),
      success: Device,
      failure: DeviceError,
      // One atomic step: two calls running at once cannot overwrite each other's change.
      handler: ({ device_name, new_status, setting }) =>
        SynchronizedRef.modifyEffect(state, (all) =>
          Effect.gen(function* () {
            const device = yield* find(all, device_name)
            const next = yield* updated(device, new_status.trim().toLowerCase(), setting)
            return [next, all.map((candidate) => (candidate.device_name === device.device_name ? next : candidate))] as const
          })
        )
    })
    // Slow on purpose: what the user says while it runs makes the server cancel it (the Live eval's cancelled call).
    const scanDevices = Tool.make("scan_devices", {
      description: "Searches the home network for devices that are not set up yet; takes a few seconds.",
      parameters: Schema.Struct({}),
      success: Schema.Struct({ found: Schema.Array(Schema.String) }),
      handler: () => Effect.as(Effect.sleep("3 seconds"), { found: [] })
    })
    return { registry: Registry.unsafeMake(getDeviceStatus, setDeviceStatus, scanDevices), devices: SynchronizedRef.get(state) }
  })

/** One line per device, e.g. `living room lamp: on, brightness 80 %, color blue`. */
export const describeDevice = (device: Device): string => {
  const settings = [
    device.brightness === undefined ? undefined : `brightness ${device.brightness} %`,
    device.color === undefined ? undefined : `color ${device.color}`,
    device.temperature_celsius === undefined ? undefined : `set to ${device.temperature_celsius} °C`
  ].filter((setting) => setting !== undefined)
  return `${device.device_name}: ${device.status}${settings.length === 0 ? "" : `, ${settings.join(", ")}`}`
}

/** The system instruction: who the assistant is and which devices exist (the model learns the names from it). */
export const systemInstruction = (devices: ReadonlyArray<Device>): string =>
  [
    "You are a smart-home assistant. Use the tools to read and change devices; never guess a device's state.",
    `The devices are: ${devices.map((device) => `${device.device_name} (${device.kind})`).join("; ")}.`,
    "Answer in one short sentence."
  ].join("\n")
