# The prober alone, in an image with nothing else: a static binary (no C library), run as a
# non-root user, on a base with no shell or package manager but with CA certificates (to probe
# HTTPS servers) and /etc/passwd entries for that user.
#
#   docker build --build-arg VERSION=v1.2.3 -t mcpwatch-prober .
#   docker run --rm mcpwatch-prober check https://mcp.example.com/mcp
#
# A stdio server has to be in the same image to be probed: build FROM this one's binary
# (COPY --from=mcpwatch-prober /prober /usr/local/bin/prober) into the server's own image.

# The Go of go.mod's go line; the build stage is discarded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so that a change to the code alone reuses the downloaded layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The version the binary prints (main.version); empty falls back to "dev".
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/prober ./cmd/prober

# distroless/static: CA certificates, tzdata and a nonroot user (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/prober /prober
USER 65532:65532
ENTRYPOINT ["/prober"]
CMD ["--help"]
