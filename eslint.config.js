import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist/**", "**/.tsbuild/**", "**/node_modules/**", "**/coverage/**", "reports/**", ".stryker-tmp*/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/ban-ts-comment": ["error", { "ts-ignore": "allow-with-description", "ts-expect-error": "allow-with-description" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "no-console": "error"
    }
  },
  {
    // The client side holds no server: the emulator is its own package, and the layers never import it.
    files: ["packages/providers/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: ["node:http", "node:https", "node:net", "http", "https", "net", "ws"].map((name) => ({ name, message: "providers are clients: servers live in @agentfx/emulator" })),
        patterns: [{ group: ["@agentfx/emulator", "@agentfx/emulator/*", "**/emulator/**"], message: "providers never import the emulator" }]
      }]
    }
  },
  {
    // The emulator reads the wire with its own schemas, written from the protocols: it imports no client code.
    files: ["packages/emulator/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          { group: ["@agentfx/providers", "@agentfx/providers/*", "**/providers/**"], message: "the emulator shares no code with the provider layers" },
          { group: ["@google/genai", "@google/genai/*", "openai", "openai/*"], message: "the emulator is written from the protocols, not from an SDK" }
        ]
      }]
    }
  },
  {
    // Tracers export a failed span's messages and stack traces, and those quote tool arguments and server bodies:
    // spans are made by Telemetry.span, which records only the error's type unless message contents are captured.
    files: ["packages/*/src/**/*.ts", "apps/*/src/**/*.ts"],
    ignores: ["packages/core/src/Telemetry.ts"],
    rules: {
      "no-restricted-properties": ["error", ...["withSpan", "useSpan", "makeSpan", "makeSpanScoped", "withSpanScoped"].map((property) => ({
        object: "Effect",
        property,
        message: "make spans with Telemetry.span: it keeps failure details off the span unless message contents are captured"
      }))]
    }
  },
  {
    // Entry points and benchmarks print to the terminal by design.
    files: ["apps/**/*.ts", "bench/**/*.ts", "packages/cli/src/**/*.ts", "**/*.mjs"],
    rules: { "no-console": "off" }
  }
)
