# Build stage: the Swift toolchain, libmicrohttpd's, SQLite's, libcurl's, HarfBuzz's, libcrypto's
# and libjwt's headers, and Debian's Inter font (fonts-inter), whose Regular file the run stage takes.
FROM swift:6.3-bookworm AS build
# Versions are not pinned (hadolint DL3008): bookworm's security archive replaces a package's
# version when it is patched and drops the old one, so a pin breaks the build on the next update;
# the suite itself keeps the ABI stable.
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev \
        libharfbuzz-dev libssl-dev libjwt-dev fonts-inter pkg-config \
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

# Run stage: Debian slim, the libmicrohttpd, SQLite, libcurl, HarfBuzz, libcrypto (libssl3) and
# libjwt runtimes (libcurl is not linked: publishing and `overlayd post` and `watch` load it when
# they run; HarfBuzz shapes the text TextMeasure measures), a non-root user and group (10001:10001, so a host folder mounted as
# the volume can be given to it by number).
FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libcurl4 libharfbuzz0b \
        libssl3 libjwt0 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 overlayd \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/overlayd --shell /usr/sbin/nologin overlayd \
    && install -d -o 10001 -g 10001 /var/lib/overlayd
COPY --from=build /out/overlayd /usr/local/bin/overlayd
# The one font file text is measured with (TextMeasure's defaultFontPath), at the path fonts-inter
# gives it: not the whole package, whose other weights, italics and display cuts nothing reads.
COPY --from=build /usr/share/fonts/opentype/inter/Inter-Regular.otf /usr/share/fonts/opentype/inter/Inter-Regular.otf
# The image's settings (listen on every address, state in the volume) are baked into its config
# file rather than set by ENV: an ENV line would silently win over a config file mounted in its
# place. The sed must change both lines, or the build stops.
COPY config/overlayd.json /etc/overlayd/overlayd.json
RUN sed -i -e 's|"host": "127.0.0.1"|"host": "0.0.0.0"|' -e 's|"dataDir": "./data"|"dataDir": "/var/lib/overlayd"|' \
        /etc/overlayd/overlayd.json \
    && grep -q '"host": "0.0.0.0"' /etc/overlayd/overlayd.json \
    && grep -q '"dataDir": "/var/lib/overlayd"' /etc/overlayd/overlayd.json
ENV OVERLAYD_CONFIG=/etc/overlayd/overlayd.json
USER 10001:10001
WORKDIR /var/lib/overlayd
VOLUME /var/lib/overlayd
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD ["overlayd", "--healthcheck"]
ENTRYPOINT ["overlayd"]
