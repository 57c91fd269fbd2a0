// Compiled next to the user's main.go. It reads the input object from stdin, calls Main once and
// writes one JSON result to fd 3, so nothing the user prints on stdout can forge or break it.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
)

var sandboxResult = os.NewFile(3, "result")

var sandboxUserLine = regexp.MustCompile(`(?m)(?:^|[\t /])main\.go:(\d+)`)

type sandboxError struct {
	Kind    string `json:"kind"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

func sandboxFinish(payload []byte, status int) {
	os.Stdout.Sync()
	for len(payload) > 0 {
		n, err := sandboxResult.Write(payload)
		if err != nil {
			os.Exit(70)
		}
		payload = payload[n:]
	}
	os.Exit(status)
}

func sandboxFail(kind, typ, message string, line int) {
	payload, _ := json.Marshal(map[string]any{
		"ok":    false,
		"error": sandboxError{Kind: kind, Type: typ, Message: message, Line: line},
	})
	sandboxFinish(payload, 1)
}

func sandboxCall(inputs map[string]any) (output map[string]any, err error) {
	defer func() {
		recovered := recover()
		if recovered == nil {
			return
		}
		stack := string(debug.Stack())
		line := 0
		if match := sandboxUserLine.FindStringSubmatch(stack); match != nil {
			line, _ = strconv.Atoi(match[1])
		}
		fmt.Fprintf(os.Stderr, "panic: %v\n\n%s", recovered, stack)
		sandboxFail("runtime", "panic", fmt.Sprint(recovered), line)
	}()
	return Main(inputs)
}

func main() {
	// Readiness: the host sends the input only after this byte (see SandboxedProcess.run).
	sandboxResult.Write([]byte("\n"))
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		sandboxFail("invalid_input", "io", err.Error(), 0)
	}
	var inputs map[string]any
	if err := json.Unmarshal(raw, &inputs); err != nil || inputs == nil {
		message := "the input must be a JSON object"
		if err != nil {
			message = err.Error()
		}
		sandboxFail("invalid_input", "json", message, 0)
	}
	output, err := sandboxCall(inputs)
	if err != nil {
		sandboxFail("runtime", "error", err.Error(), 0)
	}
	if output == nil {
		sandboxFail("invalid_output", "nil", "Main must return a non-nil map[string]any", 0)
	}
	encoded, err := json.Marshal(output)
	if err != nil {
		sandboxFail("invalid_output", "json", err.Error(), 0)
	}
	payload := append([]byte(`{"ok":true,"output":`), encoded...)
	sandboxFinish(append(payload, '}'), 0)
}
