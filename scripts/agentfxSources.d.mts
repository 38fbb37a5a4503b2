import type { Plugin } from "esbuild"

/** `core` → `index`, `core/testing` → `testing`, … for every export of every package under `packages`. */
export declare const entryPoints: (packages: string) => Record<string, string>

/** An esbuild plugin resolving `@agentfx/…` imports to the sources under `packages`; an unknown one is an error. */
export declare const sourcesPlugin: (packages: string) => Plugin
