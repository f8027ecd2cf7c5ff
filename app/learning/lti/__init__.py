"""LTI 1.3 (with Advantage): a course site (an LMS) launches gradlab, adds lessons to a course
by deep linking, and gets grades back. The protocol lives here; the store keeps the state; the
routes (app/routes/lti.py) only parse and answer. Nothing here knows the web framework.
"""
