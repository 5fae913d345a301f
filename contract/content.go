package contract

// Content is one item of a program's ordered result, appended with
// result.appendText or result.appendImage
// (https://github.com/torkbot/code-mode#program-contract, ProgramContent):
// Type "text" with Text, or Type "image" with base64 Data and MimeType.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}
