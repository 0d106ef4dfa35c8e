"""Model clients share one TLS context per process (agentkit.models.tls_context).

Each httpx client used to load certifi's CA bundle into a new OpenSSL context; one client per run
left the C heap fragmented and resident memory rising per run (issue 29 row 14). These checks count
the contexts actually built while many clients of both routes are made and used against a real
local server."""

from __future__ import annotations

import ssl

import pytest

from agentkit.messages import Message, TextPart
from agentkit.models import tls_context, usage_guard
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.testing.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])


def test_many_model_clients_build_at_most_one_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[ssl.SSLContext] = []
    real = ssl.create_default_context

    def counting(*args, **kwargs):
        context = real(*args, **kwargs)
        built.append(context)
        return context

    monkeypatch.setattr(ssl, "create_default_context", counting)
    monkeypatch.setattr(tls_context, "_contexts", {})
    with FakeOpenAIServer(lambda _b: "Go(1);", record_requests=False) as server:
        for _ in range(5):
            usage_guard.sync_client(server.base_url, None, 10.0).close()
            usage_guard.async_client(server.base_url, None, 10.0)
            model = LiteLLMModel("openai/fake-model", api_base=server.base_url, max_retries=0)
            reply = model.complete([Message(role="user", content=(TextPart("hello"),))])
            assert reply.text == "Go(1);"
    assert len(built) == 1, f"{len(built)} TLS contexts were built for 5 runs' clients"


def test_the_shared_context_follows_the_ca_setting(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import certifi

    monkeypatch.setattr(tls_context, "_contexts", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = tls_context.shared_tls_context()
    assert tls_context.shared_tls_context() is default
    assert default.verify_mode == ssl.CERT_REQUIRED and default.check_hostname
    bundle = tmp_path / "ca.pem"
    bundle.write_bytes(open(certifi.where(), "rb").read())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert tls_context.shared_tls_context() is not default
