"""Requests that older ACP clients send and the ``acp`` library no longer routes.

``session/set_model`` (``{sessionId, modelId}``) came before session config options; clients of
that time still call it to switch models. It does what ``session/set_config_option`` with the
``model`` option does (``AcpAgent.set_session_model``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

SET_MODEL = "session/set_model"


class SetSessionModelRequest(BaseModel):
    """``session/set_model`` params."""

    model_config = ConfigDict(populate_by_name=True)

    session_id: Annotated[str, Field(alias="sessionId")]
    model_id: Annotated[str, Field(alias="modelId", min_length=1)]
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
