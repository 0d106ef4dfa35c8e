"""Prompts: Jinja templates (package data, overridable by a user's folder) rendered into chat messages.

Rendering is sandboxed with StrictUndefined, so a template typo is an error rather than a silent
blank, and the sources actually used are returned for storage with the run.
"""

from agentkit.prompts.renderer import PromptRenderer, TemplateError

__all__ = ["PromptRenderer", "TemplateError"]
