"""The claim names of LTI 1.3 and LTI Advantage, spelled once."""

from __future__ import annotations

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

# Roles that see the class dashboard (context roles, full URIs or the short form).
TEACHING_ROLES = ("#Instructor", "#TeachingAssistant", "#ContentDeveloper", "#Administrator")
