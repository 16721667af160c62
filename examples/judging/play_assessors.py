"""Play the assessors of docs/judging-workbench.md without a browser (a stand-in for people).

    .venv/bin/python examples/judging/play_assessors.py PROJECT NAME=QRELS ...

Each NAME judges every document of their topics in the order the workbench shows them, with
the grade QRELS gives it (a document QRELS does not judge is skipped), through the same calls
the web application makes (cranfield.workbench's Project.screen and Project.judge).
"""

import sys

from cranfield import load_qrels
from cranfield.workbench import open_project

project = open_project(sys.argv[1])
for pair in sys.argv[2:]:
    name, qrels_file = pair.split("=", 1)
    grades = load_qrels(qrels_file).to_dict()
    who = project.assessor(name)
    labelled = skipped = 0
    for topic in project.assigned(who.id):
        while (doc := project.screen(who.id, topic).document) is not None:
            grade = grades.get(topic, {}).get(doc.doc_id)
            project.judge(who.id, topic, doc.doc_id, None if grade is None else int(grade))
            labelled, skipped = labelled + (grade is not None), skipped + (grade is None)
    print(f"{name}: {labelled} documents labelled, {skipped} skipped")
project.close()
