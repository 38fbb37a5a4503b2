import { NodeRuntime } from "@effect/platform-node"
import { executorTour } from "./executorTour.js"

NodeRuntime.runMain(executorTour)
