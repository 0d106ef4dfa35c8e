"""Animal-AI through mlagents-envs: the official Unity builds, or agentkit's arena behind the same gRPC protocol."""
