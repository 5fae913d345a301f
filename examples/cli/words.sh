#!/bin/sh
# Reads {"text": "..."} on stdin and prints {"words": N}.
text=$(sed -n 's/.*"text"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
printf '{"words":%d}\n' "$(printf '%s' "$text" | wc -w)"
