# The live bot in a container: one campaign a container, its folder a volume.
#
#   docker build -t referee .
#   docker run -d --name dune --restart on-failure \
#       -v /srv/referee/dune:/campaign --env-file /etc/referee/dune.env referee
#
# /campaign holds config.toml and the campaign's data folder (its store is written
# there); the env file holds REFEREE_SECRET and the bot's praw_* credentials. The
# health check is `referee status`: unhealthy when the bot has not read Reddit for
# longer than its longest back-off. Stop with `docker stop` (SIGTERM: the step in
# flight finishes and the store is flushed).
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 referee
WORKDIR /opt/referee
COPY pyproject.toml README.md ./
COPY referee ./referee
COPY templates ./templates
COPY data ./data
RUN pip install --no-cache-dir . && chown -R referee:referee /opt/referee

USER referee
ENV PYTHONUNBUFFERED=1
VOLUME ["/campaign"]
HEALTHCHECK --interval=60s --timeout=30s --start-period=180s \
    CMD ["referee", "--campaign", "/campaign", "status"]
ENTRYPOINT ["referee", "--campaign", "/campaign"]
CMD ["run"]
