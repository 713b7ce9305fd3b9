# syntax=docker/dockerfile:1
# arrayhubd on NVIDIA's CUDA 13 images (Ubuntu 24.04). The build stage installs and builds with
# the same scripts as the README (scripts/install-deps.sh, scripts/build.sh); the runtime stage
# has the daemon, the health probe and the shared libraries they load, and runs as an
# unprivileged user. See deploy/README.md.
#
#   docker build -t arrayhub .
#   docker run --gpus all -p 50051:50051 -p 9464:9464 \
#     -v "$PWD/tokens:/etc/arrayhub/tokens:ro" arrayhub
# It listens on every interface, so it needs a token file (lines `<tenant> <sha256 of the
# token>`, made with `arrayhubd --hash-token`; README "Authentication"), readable by uid 10001
# and by no one else; on a network you trust entirely, ARRAYHUB_INSECURE=1 serves without one.
ARG CUDA_VERSION=13.0.0

FROM nvidia/cuda:${CUDA_VERSION}-devel-ubuntu24.04 AS build
# GPU architectures for the precompiled kernels (reductions, random fills, linear algebra);
# elementwise kernels are compiled at run time by NVRTC for the GPU in hand.
ARG CUDA_ARCHITECTURES="80;90;100;120"
WORKDIR /src
# install-deps.sh first, alone, so that the package layer is reused while only sources change.
COPY scripts/install-deps.sh scripts/
RUN ./scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN ./scripts/build.sh -DARRAYHUB_BUILD_TESTS=OFF \
      "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" \
 && mkdir -p /out \
 && install -m 0755 build/server/arrayhubd build/server/arrayhub-health /out/ \
 && ./scripts/runtime-packages.sh /out/arrayhubd /out/arrayhub-health > /out/runtime-packages.txt

FROM nvidia/cuda:${CUDA_VERSION}-runtime-ubuntu24.04 AS runtime
COPY --from=build /out/runtime-packages.txt /tmp/
RUN apt-get update \
 && xargs -a /tmp/runtime-packages.txt apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin arrayhub \
 && install -d -m 0700 -o 10001 -g 10001 /var/lib/arrayhub
COPY --from=build /out/arrayhubd /out/arrayhub-health /usr/local/bin/

# Every option is an ARRAYHUB_* variable (arrayhubd --help); these make the daemon reachable
# from outside the container. A config file can be mounted and named by ARRAYHUB_CONFIG.
ENV ARRAYHUB_LISTEN=0.0.0.0:50051 \
    ARRAYHUB_AUTH_FILE=/etc/arrayhub/tokens \
    ARRAYHUB_METRICS_LISTEN=0.0.0.0:9464 \
    ARRAYHUB_BACKEND=auto \
    ARRAYHUB_LOG_LEVEL=info \
    ARRAYHUB_DATA_DIR=/var/lib/arrayhub/data
# Durable publications (docs/operations.md): mount a volume here to keep them across containers.
VOLUME /var/lib/arrayhub
# gRPC, then Prometheus metrics (/metrics).
EXPOSE 50051 9464
USER 10001:10001
# arrayhub-health asks grpc.health.v1.Health/Check on the port of $ARRAYHUB_LISTEN.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/arrayhub-health", "--timeout", "4"]
# SIGTERM drains (ARRAYHUB_DRAIN_SECONDS, default 10 s); give `docker stop` longer than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/arrayhubd"]
