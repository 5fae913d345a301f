// The runner bundle: one self-contained script that defines the global
// CodeModeRunner. Drivers evaluate it and take what they need: the QuickJS
// driver the quickjs entry, the Node driver startNodeRunner.
export { createExecution, serializeError, formatValue, checkJSON, toJSONText, errorLimits, sfc32 } from "./core";
export { quickjs } from "./quickjs";
export { startRunner, protocolVersion, protocolMinor, maxFrameSize } from "./wire";
export { startNodeRunner } from "./node";
