# gradlab in a container: `docker build -t gradlab . && docker run -p 8000:8000 gradlab`
#
# Build arguments:
#   BASE_IMAGE       Debian-based image with Python 3.11 as `python3` (default python:3.11-slim).
#   TORCH_INDEX_URL  where torch and its dependencies come from (default: PyTorch's CPU-only
#                    index, so no CUDA libraries are pulled).
#   TORCH_VERSION    the torch release pyproject.toml pins, with the "+cpu" label that no CUDA
#                    build carries.
#   PIP_NO_INDEX=1   install from wheels/ only: a fully offline build.
# pip looks in the build context's wheels/ folder (--find-links) as well as the index and, for the
# same release, takes the local file.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS builder
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG TORCH_VERSION=2.13.0+cpu
ARG PIP_NO_INDEX
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_FIND_LINKS=/wheels \
    PIP_ROOT_USER_ACTION=ignore \
    PATH=/opt/venv/bin:$PATH

# strip(1) trims about 90 MB of symbol tables from torch's shared libraries. It is best effort:
# an offline build goes on without it.
# hadolint ignore=DL3008,DL3009
RUN command -v strip >/dev/null \
    || (apt-get update -qq && apt-get install -y -qq --no-install-recommends binutils) >/dev/null 2>&1 \
    || echo "binutils unavailable: torch's libraries keep their symbol tables"

# A virtual environment works the same on python:3.11-slim (/usr/local/bin/python3) and on a
# plain Debian base (/usr/bin/python3); the final image runs /opt/venv/bin/python.
RUN python3 -m venv /opt/venv

COPY wheels/ /wheels/
# torch alone first, from the CPU index (or wheels/); then trim what running it never needs:
# C++ headers, test binaries and test libraries, symbol tables.
RUN pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}" \
    && site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
    && find "$site/torch/bin" -mindepth 1 ! -name torch_shm_manager -exec rm -rf {} + \
    && rm -rf "$site/torch/include" "$site/torch/test" "$site/torch/share/cmake" \
    && rm -f "$site"/torch/lib/*test*.so \
    && if command -v strip >/dev/null; then strip --strip-unneeded "$site"/torch/lib/*.so*; fi \
    && python -c "import torch; assert torch.version.cuda is None, torch.version.cuda; print('torch', torch.__version__)"

# The rest of pyproject.toml's dependencies (its torch pin must be the one installed above).
COPY pyproject.toml /tmp/pyproject.toml
RUN python -c "import os, tomllib; deps = tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']['dependencies']; pin = 'torch==' + os.environ['TORCH_VERSION'].split('+')[0]; assert pin in deps, f'pyproject.toml does not pin {pin}: build with --build-arg TORCH_VERSION=<its version>+cpu'; print(*(d for d in deps if d != pin), sep=chr(10))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt "dumb-init==1.2.5.post1" \
    && python -c "import importlib.metadata as m, sys; cuda = sorted(d.metadata['Name'] for d in m.distributions() if d.metadata['Name'].lower().startswith(('nvidia', 'triton'))); sys.exit(f'CUDA packages were installed: {cuda}' if cuda else 0)"

# gradlab itself, installed as any user would (the wheel carries its pages, static files and
# lessons inside the package), and the `gradlab` command. Compiled ahead: the app user cannot
# write __pycache__. Building it takes setuptools from the index, or from wheels/ in an offline
# build.
COPY pyproject.toml README.md /src/
COPY app/ /src/app/
COPY templates/ /src/templates/
COPY static/ /src/static/
COPY lessons/ /src/lessons/
RUN pip install --no-deps --no-compile /src \
    && python -m pip uninstall -y -q pip \
    && site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
    && python -m compileall -q --invalidation-mode unchecked-hash "$site/app" \
    && chmod -R u=rwX,go=rX "$site/app"

FROM ${BASE_IMAGE}
LABEL org.opencontainers.image.title="gradlab" \
      org.opencontainers.image.description="Learn PyTorch autograd and the .grad attribute by running it."

ENV PATH=/opt/venv/bin:$PATH \
    LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    GRADLAB_DATABASE_URL=sqlite:////data/gradlab.db

# An unprivileged user that owns only the database folder; everything else belongs to root.
RUN groupadd --system --gid 10001 gradlab \
    && useradd --system --uid 10001 --gid gradlab --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin gradlab \
    && mkdir -m 0700 /data \
    && chown gradlab:gradlab /data

COPY --from=builder /opt/venv /opt/venv
# Fail the build, not the first run, when libseccomp (the sandbox's seccomp layer) is missing.
RUN python -c "import pyseccomp, torch, app.main"

WORKDIR /data
VOLUME ["/data"]
# Numeric, so that runtimes can verify it is not root (runAsNonRoot).
USER 10001:10001
EXPOSE 8000
# Healthy once the sandbox is ready, which requires every isolation layer to be on.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import json, sys, urllib.request as r; h = json.load(r.urlopen('http://127.0.0.1:8000/healthz', timeout=4)); sys.exit(0 if h['sandbox']['ready'] else 1)"]
# dumb-init as pid 1 reaps orphans (runs left behind by a zygote that died) and forwards signals.
ENTRYPOINT ["dumb-init", "--"]
CMD ["gradlab", "serve", "--host", "0.0.0.0", "--port", "8000"]
