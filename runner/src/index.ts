// The runner bundle: one self-contained script that defines the global
// CodeModeRunner. Drivers evaluate it, take the value and delete the global.
export { Execution, serializeError, formatValue, checkJSON, toJSONText, errorLimits } from "./core";
export { quickjs } from "./quickjs";
