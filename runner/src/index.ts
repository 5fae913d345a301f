// The runner bundle: one self-contained script that defines the global
// CodeModeRunner. Drivers evaluate it and take what they need: the QuickJS
// driver the quickjs entry, the Node driver startRunner.
export { Execution, serializeError, formatValue, checkJSON, toJSONText, errorLimits } from "./core";
export { quickjs } from "./quickjs";
export { startRunner, protocolVersion, maxFrameSize } from "./wire";
