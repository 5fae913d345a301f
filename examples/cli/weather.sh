#!/bin/sh
# Reads {"location": "..."} on stdin and prints a made-up report.
input=$(cat)
location=$(printf '%s' "$input" | sed -n 's/.*"location"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
if [ -z "$location" ]; then
  echo "no location given" >&2
  exit 1
fi
printf '{"location":"%s","temperatureC":%d}\n' "$location" $(( ${#location} * 3 ))
