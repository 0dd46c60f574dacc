# The kube-proxy-lint container image, built by GoReleaser from the release binaries
# (.goreleaser.yaml, dockers_v2: buildx puts each platform's binary under TARGETPLATFORM). git
# is there for --rev and --new-from-rev.
#
#   docker run --rm -v "$PWD:/src" -w /src ghcr.io/kube-proxy-lint/kube-proxy-lint:VERSION .
FROM alpine:3.22
ARG TARGETPLATFORM
RUN apk add --no-cache git && git config --system --add safe.directory '*'
COPY ${TARGETPLATFORM}/kube-proxy-lint ${TARGETPLATFORM}/kube-proxy-lint-helm /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kube-proxy-lint"]
