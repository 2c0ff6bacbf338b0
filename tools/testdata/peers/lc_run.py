"""Runs calls against LangChain's FileManagementToolkit tools, for record.mjs.

    PYTHONPATH=LANGCHAIN_SRC python3 lc_run.py ROOT < calls.json > answers.json

LANGCHAIN_SRC holds langchain_community/tools/file_management/*.py from
langchain-community 0.3.x (its source; the package's registry is not
reachable from our machines). Those files import a few langchain_core
names; this script supplies them: BaseTool runs a tool's _run with the
call's arguments, as LangChain's BaseTool.run does once its args_schema
has validated them. Each tool gets root_dir=ROOT, as the ADK agent builds
them. The answer of a call is the string the tool returns; a call whose
tool raises instead is an error answer with the exception's type and text.
"""

import json
import sys
import types

import pydantic

core = types.ModuleType("langchain_core")
callbacks = types.ModuleType("langchain_core.callbacks")
tools_mod = types.ModuleType("langchain_core.tools")
pyd_v1 = types.ModuleType("langchain_core.pydantic_v1")


class CallbackManagerForToolRun:  # only a type annotation in the tools
    pass


class AsyncCallbackManagerForToolRun:
    pass


class BaseTool(pydantic.BaseModel):
    name: str = ""
    description: str = ""
    args_schema: object = None

    def run(self, args):
        parsed = self.args_schema(**args).model_dump()
        return self._run(**parsed)


callbacks.CallbackManagerForToolRun = CallbackManagerForToolRun
callbacks.AsyncCallbackManagerForToolRun = AsyncCallbackManagerForToolRun
tools_mod.BaseTool = BaseTool
pyd_v1.BaseModel = pydantic.BaseModel
for name, mod in [("langchain_core", core), ("langchain_core.callbacks", callbacks), ("langchain_core.tools", tools_mod), ("langchain_core.pydantic_v1", pyd_v1)]:
    sys.modules[name] = mod

from langchain_community.tools.file_management.copy import CopyFileTool  # noqa: E402
from langchain_community.tools.file_management.delete import DeleteFileTool  # noqa: E402
from langchain_community.tools.file_management.file_search import FileSearchTool  # noqa: E402
from langchain_community.tools.file_management.list_dir import ListDirectoryTool  # noqa: E402
from langchain_community.tools.file_management.move import MoveFileTool  # noqa: E402
from langchain_community.tools.file_management.read import ReadFileTool  # noqa: E402
from langchain_community.tools.file_management.write import WriteFileTool  # noqa: E402

root = sys.argv[1]
kinds = [CopyFileTool, DeleteFileTool, FileSearchTool, ListDirectoryTool, MoveFileTool, ReadFileTool, WriteFileTool]
by_name = {}
for kind in kinds:
    tool = kind(root_dir=root)
    by_name[tool.name] = tool

answers = []
for call in json.load(sys.stdin):
    args = json.loads(json.dumps(call["input"]).replace("$ROOT", root))
    try:
        text = by_name[call["tool"]].run(args)
        answers.append({"text": text, "is_error": False})
    except Exception as e:  # the tool raised: LangChain passes it on
        answers.append({"text": f"{type(e).__name__}: {e}", "is_error": True})
json.dump(answers, sys.stdout)
