/**
 * The model of the offline smart-home demo, played by the emulator: a small deterministic policy that reads what
 * a real model would read — the system instruction (which devices exist), the user's words and the tool
 * responses — and answers as a Live model does: a call to `get_device_status` for a question about a device, a
 * call to `set_device_status` for a request to change one ("it" is the device talked about last), and a sentence
 * made from the responses once they are in. It never sees the home's state except through those responses.
 */
import type { FunctionResponse, Json } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import { Policy } from "@agentfx/emulator"

const colors = ["warm white", "white", "red", "orange", "yellow", "green", "blue", "purple", "pink"]

/** Device names from the system instruction's "The devices are: name (kind); …." line. */
const deviceNames = (system: string | undefined): ReadonlyArray<string> => {
  const line = /The devices are: (.*)\./.exec(system ?? "")?.[1] ?? ""
  return line
    .split(";")
    .map((entry) => entry.replace(/\(.*\)/, "").trim().toLowerCase())
    .filter((name) => name !== "")
}

const userTexts = (transcript: Policy.Request["transcript"]): ReadonlyArray<string> =>
  transcript.filter((turn) => turn.role === "user" && Turn.responses(turn).length === 0).map((turn) => Turn.text(turn))

/** The device a message is about: named in it, or (for "it") the last one named before. */
const deviceOf = (texts: ReadonlyArray<string>, names: ReadonlyArray<string>): string | undefined => {
  for (let i = texts.length - 1; i >= 0; i--) {
    const text = texts[i]!.toLowerCase()
    const named = names.find((name) => text.includes(name))
    if (named !== undefined) return named
  }
  return undefined
}

const isQuestion = (text: string): boolean => /^\s*(is|are|what|what's|how|which|does|do)\b/i.test(text) || /\?\s*$/.test(text)

/** `set_device_status`'s arguments from a request such as "turn it on and set its color to blue". */
const changeOf = (device: string, text: string): Json.JsonObject => {
  const lower = text.toLowerCase()
  const status = /\bunlock/.test(lower) ? "unlocked" : /\block\b/.test(lower) ? "locked" : /\b(off|turn it off|switch off)\b/.test(lower) ? "off" : "on"
  const setting: Record<string, string | number> = {}
  const color = colors.find((name) => new RegExp(`\\b${name}\\b`).test(lower))
  if (color !== undefined && /colou?r|\bto\b/.test(lower)) setting.color = color
  const brightness = /(\d+(?:\.\d+)?)\s*(%|percent)/.exec(lower)?.[1]
  if (brightness !== undefined) setting.brightness = Number(brightness)
  const temperature = /(\d+(?:\.\d+)?)\s*(°|degrees?)/.exec(lower)?.[1]
  if (temperature !== undefined) setting.temperature_celsius = Number(temperature)
  return { device_name: device, new_status: status, ...(Object.keys(setting).length === 0 ? {} : { setting }) }
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined

/** A sentence about one response. */
const sentence = (response: FunctionResponse.FunctionResponse): string => {
  const error = field(response.response, "error")
  if (error !== undefined) return `I couldn't do that: ${String(field(error, "message") ?? "the device refused")}.`
  const name = String(field(response.response, "device_name") ?? "the device")
  const status = String(field(response.response, "status") ?? "unknown")
  const temperature = field(response.response, "temperature_celsius")
  const color = field(response.response, "color")
  const brightness = field(response.response, "brightness")
  const details =
    temperature !== undefined
      ? ` and set to ${String(temperature)} °C`
      : color !== undefined && status === "on"
        ? `, ${String(color)} at ${String(brightness)} % brightness`
        : ""
  return response.name === "set_device_status" ? `Done: the ${name} is now ${status}${details}.` : `The ${name} is ${status}${details}.`
}

/** The emulator's policy for the demo. */
export const policy: Policy.Policy = Policy.fromFunction((request) => {
  const last = request.transcript[request.transcript.length - 1]
  if (last !== undefined && Turn.responses(last).length > 0) return { text: Turn.responses(last).map(sentence).join(" ") }
  const texts = userTexts(request.transcript)
  const text = texts[texts.length - 1] ?? ""
  const names = deviceNames(request.system)
  const device = deviceOf(texts, names)
  if (device === undefined) return { text: `Which device do you mean? I can reach the ${names.join(", the ")}.` }
  return isQuestion(text) && !/\b(turn|switch|please set|make)\b/i.test(text)
    ? { calls: [{ name: "get_device_status", args: { device_name: device } }] }
    : { calls: [{ name: "set_device_status", args: changeOf(device, text) }] }
})
