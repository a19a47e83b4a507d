# The generator image for `loadlab fleet k8s`: the static loadlab binary and
# nothing else (no shell, no package manager). Build and push it to a
# registry your cluster pulls from:
#
#   docker build -t registry.example/loadlab:1 .
#   docker push registry.example/loadlab:1
#   loadlab fleet k8s -apply -shards 4 -image registry.example/loadlab:1 ...
#
# The pods run `loadlab fleet pod` (the shard's attack, then holding its
# results file) and the runner collects with `kubectl exec POD -- loadlab
# fleet collect FILE`: loadlab is the only program the image needs.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /loadlab ./cmd/loadlab

FROM scratch
COPY --from=build /loadlab /usr/local/bin/loadlab
# CA certificates for targets behind TLS.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["loadlab"]
