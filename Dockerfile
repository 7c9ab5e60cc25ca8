# Build stage: the Swift toolchain, libmicrohttpd's, SQLite's and libcurl's headers.
FROM swift:6.3-bookworm AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# SwiftPM checks every target of the manifest, the test and fuzz targets too, so their folders
# come along.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Fuzz ./Fuzz
RUN swift build -c release --static-swift-stdlib --product overlayd \
    && install -D "$(swift build -c release --show-bin-path)/overlayd" /out/overlayd

# Run stage: Debian slim, the libmicrohttpd, SQLite and libcurl runtimes, a non-root user.
FROM debian:bookworm-slim
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libcurl4 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /var/lib/overlayd --shell /usr/sbin/nologin overlayd \
    && install -d -o overlayd -g overlayd /var/lib/overlayd
COPY --from=build /out/overlayd /usr/local/bin/overlayd
COPY config/overlayd.json /etc/overlayd/overlayd.json
# The baked-in file holds every default; any OVERLAYD_* variable given to `docker run -e` wins
# over it, and flags after the image name win over both.
ENV OVERLAYD_CONFIG=/etc/overlayd/overlayd.json \
    OVERLAYD_HOST=0.0.0.0 \
    OVERLAYD_PORT=8080 \
    OVERLAYD_DATA_DIR=/var/lib/overlayd
USER overlayd
WORKDIR /var/lib/overlayd
VOLUME /var/lib/overlayd
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD ["overlayd", "--healthcheck"]
ENTRYPOINT ["overlayd"]
