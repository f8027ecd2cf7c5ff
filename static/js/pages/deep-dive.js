// Entry script of the deep dive (lesson.html): the modules it imports do nothing on import.
import {startLessonPage} from "../lesson.js";
import {addShareButtons} from "../share-button.js";
import {addReportLinks} from "../report-problem.js";
import {startExercises} from "../widgets/code-exercise.js";

startLessonPage();
addShareButtons();
addReportLinks();
startExercises();
