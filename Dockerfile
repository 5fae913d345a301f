# syntax=docker/dockerfile:1
# The codemode image: one static binary on distroless, running as a
# non-root user, with the QuickJS compilation cache baked in.
# docs/operations.md explains how to run it; deploy/ holds Kubernetes
# manifests that use it.
#
#   docker build -t codemode .
#   docker run --rm codemode runner serve --help

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (the SQLite journal is modernc.org/sqlite): a static binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/codemode ./cmd/codemode
# Warm the QuickJS compilation cache: the first execution in a container
# then loads machine code instead of compiling it (wazero keys the cache by
# its version, the architecture and the CPU features it compiles for).
RUN printf 'return 1;\n' > /tmp/warm.ts \
 && XDG_CACHE_HOME=/out/cache /out/codemode run /tmp/warm.ts \
 && test -n "$(ls -A /out/cache/codemode/quickjs)"

# distroless/static: CA certificates, /etc/passwd with nonroot (65532),
# no shell, no libc.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/codemode /usr/local/bin/codemode
COPY --from=build --chown=65532:65532 /out/cache /home/nonroot/.cache
ENV XDG_CACHE_HOME=/home/nonroot/.cache
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/codemode"]
